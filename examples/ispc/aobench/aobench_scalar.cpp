// Ambient occlusion (aobench) in plain scalar C++: the reference and baseline of aobench.spmd.
#include "aobench_scalar.h"

#include <cmath>

// spmdc does not contract a * b + c into an FMA. Whether a ray hits a sphere depends on the last
// bits, so the scalar code rounds each operation the same way to produce the same image.
#pragma clang fp contract(off)

static const int NaoSamples = 8;

namespace {
struct Vec {
  float X, Y, Z;
};
struct Ray {
  Vec Org, Dir;
};
struct Isect {
  float T;
  Vec P, N;
  int Hit;
};
struct Sphere {
  Vec Center;
  float Radius;
};
struct Plane {
  Vec P, N;
};
} // namespace

static inline float dot(const Vec &A, const Vec &B) { return A.X * B.X + A.Y * B.Y + A.Z * B.Z; }

static inline Vec cross(const Vec &A, const Vec &B) {
  return {A.Y * B.Z - A.Z * B.Y, A.Z * B.X - A.X * B.Z, A.X * B.Y - A.Y * B.X};
}

static inline Vec normalize(Vec V) {
  float Len2 = dot(V, V);
  if (std::fabs(Len2) > 1.0e-17f) {
    float InvLen = 1.0f / std::sqrt(Len2);
    V.X *= InvLen;
    V.Y *= InvLen;
    V.Z *= InvLen;
  }
  return V;
}

static inline void rayPlaneIntersect(Isect &I, const Ray &R, const Plane &P) {
  float D = -dot(P.P, P.N);
  float V = dot(R.Dir, P.N);
  if (std::fabs(V) < 1.0e-17f)
    return;
  float T = -(dot(R.Org, P.N) + D) / V;
  if (T > 0.0f && T < I.T) {
    I.T = T;
    I.Hit = 1;
    I.P = {R.Org.X + T * R.Dir.X, R.Org.Y + T * R.Dir.Y, R.Org.Z + T * R.Dir.Z};
    I.N = P.N;
  }
}

static inline void raySphereIntersect(Isect &I, const Ray &R, const Sphere &S) {
  Vec RS = {R.Org.X - S.Center.X, R.Org.Y - S.Center.Y, R.Org.Z - S.Center.Z};
  float B = dot(RS, R.Dir);
  float C = dot(RS, RS) - S.Radius * S.Radius;
  float D = B * B - C;
  if (D > 0.0f) {
    float T = -B - std::sqrt(D);
    if (T > 0.0f && T < I.T) {
      I.T = T;
      I.Hit = 1;
      I.P = {R.Org.X + T * R.Dir.X, R.Org.Y + T * R.Dir.Y, R.Org.Z + T * R.Dir.Z};
      I.N = normalize({I.P.X - S.Center.X, I.P.Y - S.Center.Y, I.P.Z - S.Center.Z});
    }
  }
}

static inline void orthoBasis(Vec Basis[3], const Vec &N) {
  Basis[2] = N;
  Basis[1] = {0.0f, 0.0f, 0.0f};
  if (N.X < 0.6f && N.X > -0.6f)
    Basis[1].X = 1.0f;
  else if (N.Y < 0.6f && N.Y > -0.6f)
    Basis[1].Y = 1.0f;
  else if (N.Z < 0.6f && N.Z > -0.6f)
    Basis[1].Z = 1.0f;
  else
    Basis[1].X = 1.0f;
  Basis[0] = normalize(cross(Basis[1], Basis[2]));
  Basis[1] = normalize(cross(Basis[2], Basis[0]));
}

static inline float nextRandom(unsigned &State) {
  State = State * 1664525u + 1013904223u;
  return float(State >> 8) * (1.0f / 16777216.0f);
}

static float ambientOcclusion(const Isect &I, const Plane &P, const Sphere Spheres[3],
                              unsigned &Rng) {
  const float Eps = 0.0001f;
  Vec Origin = {I.P.X + Eps * I.N.X, I.P.Y + Eps * I.N.Y, I.P.Z + Eps * I.N.Z};
  Vec Basis[3];
  orthoBasis(Basis, I.N);
  float Occlusion = 0.0f;
  for (int J = 0; J < NaoSamples; J++)
    for (int K = 0; K < NaoSamples; K++) {
      float Theta = std::sqrt(nextRandom(Rng));
      float Phi = 2.0f * 3.14159265358979f * nextRandom(Rng);
      float X = std::cos(Phi) * Theta;
      float Y = std::sin(Phi) * Theta;
      float Z = std::sqrt(1.0f - Theta * Theta);
      Ray R;
      R.Org = Origin;
      R.Dir = {X * Basis[0].X + Y * Basis[1].X + Z * Basis[2].X,
               X * Basis[0].Y + Y * Basis[1].Y + Z * Basis[2].Y,
               X * Basis[0].Z + Y * Basis[1].Z + Z * Basis[2].Z};
      Isect Occ;
      Occ.T = 1.0e17f;
      Occ.Hit = 0;
      for (int S = 0; S < 3; S++)
        raySphereIntersect(Occ, R, Spheres[S]);
      rayPlaneIntersect(Occ, R, P);
      if (Occ.Hit != 0)
        Occlusion += 1.0f;
    }
  return (float(NaoSamples * NaoSamples) - Occlusion) / float(NaoSamples * NaoSamples);
}

void ao_scalar(int W, int H, int NSubsamples, float *Image) {
  const Plane ThePlane = {{0.0f, -0.5f, 0.0f}, {0.0f, 1.0f, 0.0f}};
  const Sphere Spheres[3] = {
      {{-2.0f, 0.0f, -3.5f}, 0.5f}, {{-0.5f, 0.0f, -3.0f}, 0.5f}, {{1.0f, 0.0f, -2.2f}, 0.5f}};
  const float InvSamples = 1.0f / (NSubsamples * NSubsamples);
  for (int Y = 0; Y < H; ++Y)
    for (int X = 0; X < W; ++X) {
      unsigned Rng = unsigned(Y * W + X) * 2654435761u + 12345u;
      float Sum = 0.0f;
      for (int V = 0; V < NSubsamples; V++)
        for (int U = 0; U < NSubsamples; U++) {
          float Px = (X + (U / float(NSubsamples)) - (W / 2.0f)) / (W / 2.0f);
          float Py = -(Y + (V / float(NSubsamples)) - (H / 2.0f)) / (H / 2.0f);
          Ray R;
          R.Org = {0.0f, 0.0f, 0.0f};
          R.Dir = normalize({Px, Py, -1.0f});
          Isect I;
          I.T = 1.0e17f;
          I.Hit = 0;
          for (int S = 0; S < 3; S++)
            raySphereIntersect(I, R, Spheres[S]);
          rayPlaneIntersect(I, R, ThePlane);
          if (I.Hit != 0)
            Sum += ambientOcclusion(I, ThePlane, Spheres, Rng);
        }
      Image[Y * W + X] = Sum * InvSamples;
    }
}
