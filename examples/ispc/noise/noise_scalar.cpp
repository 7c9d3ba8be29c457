// Perlin noise turbulence in plain scalar C++: the reference and baseline of noise.spmd.
#include "noise_scalar.h"
#include "noise_perm.h"

#include <cmath>

static const int Perm[512] = {NOISE_PERMUTATION NOISE_PERMUTATION};

static inline float fade(float T) { return T * T * T * (T * (T * 6.0f - 15.0f) + 10.0f); }

static inline float lerp(float T, float A, float B) { return A + T * (B - A); }

static inline float grad(int Hash, float X, float Y, float Z) {
  int H = Hash & 15;
  float U = H < 8 ? X : Y;
  float V = H < 4 ? Y : (H == 12 || H == 14 ? X : Z);
  return ((H & 1) == 0 ? U : -U) + ((H & 2) == 0 ? V : -V);
}

static float noise(float X, float Y, float Z) {
  float FX = std::floor(X), FY = std::floor(Y), FZ = std::floor(Z);
  int XI = int(FX) & 255, YI = int(FY) & 255, ZI = int(FZ) & 255;
  X -= FX;
  Y -= FY;
  Z -= FZ;
  float U = fade(X), V = fade(Y), W = fade(Z);
  int A = Perm[XI] + YI, AA = Perm[A] + ZI, AB = Perm[A + 1] + ZI;
  int B = Perm[XI + 1] + YI, BA = Perm[B] + ZI, BB = Perm[B + 1] + ZI;
  return lerp(
      W,
      lerp(V, lerp(U, grad(Perm[AA], X, Y, Z), grad(Perm[BA], X - 1, Y, Z)),
           lerp(U, grad(Perm[AB], X, Y - 1, Z), grad(Perm[BB], X - 1, Y - 1, Z))),
      lerp(V, lerp(U, grad(Perm[AA + 1], X, Y, Z - 1), grad(Perm[BA + 1], X - 1, Y, Z - 1)),
           lerp(U, grad(Perm[AB + 1], X, Y - 1, Z - 1), grad(Perm[BB + 1], X - 1, Y - 1, Z - 1))));
}

static float turbulence(float X, float Y, float Z, int Octaves) {
  float Sum = 0.0f, Frequency = 1.0f, Amplitude = 1.0f;
  for (int O = 0; O < Octaves; ++O) {
    Sum += Amplitude * std::fabs(noise(X * Frequency, Y * Frequency, Z * Frequency));
    Frequency *= 2.0f;
    Amplitude *= 0.5f;
  }
  return Sum;
}

void noise_scalar(float X0, float Y0, float X1, float Y1, float Z, int Width, int Height,
                  int Octaves, float *Output) {
  float Dx = (X1 - X0) / Width;
  float Dy = (Y1 - Y0) / Height;
  for (int Row = 0; Row < Height; ++Row)
    for (int Col = 0; Col < Width; ++Col) {
      float X = X0 + Col * Dx;
      float Y = Y0 + Row * Dy;
      Output[Row * Width + Col] = turbulence(X, Y, Z, Octaves);
    }
}
