// Volume rendering by ray marching in plain scalar C++: the reference and baseline of
// volume.spmd.
#include "volume_scalar.h"

#include <algorithm>
#include <cmath>

// spmdc does not contract a * b + c into an FMA; rays stop early at a transmittance threshold,
// so the scalar code rounds each operation the same way to stop at the same step.
#pragma clang fp contract(off)

static bool boxIntersect(float Ox, float Oy, float Oz, float Dx, float Dy, float Dz, float &TNear,
                         float &TFar) {
  float T0 = 0.0f, T1 = 1.0e30f;
  float Inv = 1.0f / Dx;
  float A = (0.0f - Ox) * Inv, B = (1.0f - Ox) * Inv;
  T0 = std::max(T0, std::min(A, B));
  T1 = std::min(T1, std::max(A, B));
  Inv = 1.0f / Dy;
  A = (0.0f - Oy) * Inv;
  B = (1.0f - Oy) * Inv;
  T0 = std::max(T0, std::min(A, B));
  T1 = std::min(T1, std::max(A, B));
  Inv = 1.0f / Dz;
  A = (0.0f - Oz) * Inv;
  B = (1.0f - Oz) * Inv;
  T0 = std::max(T0, std::min(A, B));
  T1 = std::min(T1, std::max(A, B));
  TNear = T0;
  TFar = T1;
  return T0 < T1;
}

static float densityAt(const float *Density, int N, float X, float Y, float Z) {
  float Scale = N - 1;
  float Gx = std::clamp(X * Scale, 0.0f, Scale - 0.001f);
  float Gy = std::clamp(Y * Scale, 0.0f, Scale - 0.001f);
  float Gz = std::clamp(Z * Scale, 0.0f, Scale - 0.001f);
  int Ix = int(Gx), Iy = int(Gy), Iz = int(Gz);
  float Fx = Gx - Ix, Fy = Gy - Iy, Fz = Gz - Iz;
  int I000 = (Iz * N + Iy) * N + Ix;
  int I010 = I000 + N, I100 = I000 + N * N, I110 = I100 + N;
  float D00 = Density[I000] + Fx * (Density[I000 + 1] - Density[I000]);
  float D01 = Density[I010] + Fx * (Density[I010 + 1] - Density[I010]);
  float D10 = Density[I100] + Fx * (Density[I100 + 1] - Density[I100]);
  float D11 = Density[I110] + Fx * (Density[I110 + 1] - Density[I110]);
  float D0 = D00 + Fy * (D01 - D00);
  float D1 = D10 + Fy * (D11 - D10);
  return D0 + Fz * (D1 - D0);
}

static float lightTransmittance(const float *Density, int N, float X, float Y, float Z, float Lx,
                                float Ly, float Lz, int LightSteps, float SigmaT) {
  float TNear, TFar;
  boxIntersect(X, Y, Z, Lx, Ly, Lz, TNear, TFar);
  float Dt = TFar / LightSteps;
  float Sum = 0.0f;
  for (int S = 0; S < LightSteps; ++S) {
    float T = (S + 0.5f) * Dt;
    Sum += densityAt(Density, N, X + T * Lx, Y + T * Ly, Z + T * Lz);
  }
  return std::exp(-SigmaT * Sum * Dt);
}

static float renderRay(const float *Density, int N, float Ox, float Oy, float Oz, float Dx,
                       float Dy, float Dz, float Step, int LightSteps) {
  const float SigmaT = 12.0f, SigmaS = 10.0f;
  const float Lx = -0.5773503f, Ly = 0.5773503f, Lz = -0.5773503f;
  float TNear, TFar;
  if (!boxIntersect(Ox, Oy, Oz, Dx, Dy, Dz, TNear, TFar))
    return 0.0f;
  float Radiance = 0.0f, Transmittance = 1.0f;
  for (float T = TNear + 0.5f * Step; T < TFar; T += Step) {
    float X = Ox + T * Dx, Y = Oy + T * Dy, Z = Oz + T * Dz;
    float D = densityAt(Density, N, X, Y, Z);
    if (D > 0.01f) {
      float Light = lightTransmittance(Density, N, X, Y, Z, Lx, Ly, Lz, LightSteps, SigmaT);
      Radiance += Transmittance * Light * SigmaS * D * Step;
      Transmittance *= std::exp(-SigmaT * D * Step);
      if (Transmittance < 0.005f)
        break;
    }
  }
  return Radiance;
}

void volume_scalar(const float *Density, int N, int Width, int Height, float Step, int LightSteps,
                   float *Image) {
  const float Ox = 0.5f, Oy = 0.5f, Oz = -1.2f;
  for (int Row = 0; Row < Height; ++Row)
    for (int Col = 0; Col < Width; ++Col) {
      float Px = (Col + 0.5f) / Width - 0.5f;
      float Py = 0.5f - (Row + 0.5f) / Height;
      float Len = std::sqrt(Px * Px + Py * Py + 1.0f);
      Image[Row * Width + Col] =
          renderRay(Density, N, Ox, Oy, Oz, Px / Len, Py / Len, 1.0f / Len, Step, LightSteps);
    }
}
