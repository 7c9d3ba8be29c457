// 3D wave-equation stencil in plain scalar C++: the reference and baseline of stencil.spmd.
#include "stencil_scalar.h"

static void stencilStep(int X0, int X1, int Y0, int Y1, int Z0, int Z1, int Nx, int Ny,
                        const float Coef[4], const float *Vsq, const float *Ain, float *Aout) {
  const int Nxy = Nx * Ny;
  for (int Z = Z0; Z < Z1; ++Z)
    for (int Y = Y0; Y < Y1; ++Y)
      for (int X = X0; X < X1; ++X) {
        int C = Z * Nxy + Y * Nx + X;
        float Lap = Coef[0] * Ain[C];
        for (int R = 1; R <= 3; ++R)
          Lap += Coef[R] * (Ain[C + R] + Ain[C - R] + Ain[C + R * Nx] + Ain[C - R * Nx] +
                            Ain[C + R * Nxy] + Ain[C - R * Nxy]);
        Aout[C] = 2.0f * Ain[C] - Aout[C] + Vsq[C] * Lap;
      }
}

void stencil_scalar(int T0, int T1, int X0, int X1, int Y0, int Y1, int Z0, int Z1, int Nx, int Ny,
                    int Nz, const float Coef[4], const float *Vsq, float *AEven, float *AOdd) {
  (void)Nz;
  for (int T = T0; T < T1; ++T) {
    if ((T & 1) == 0)
      stencilStep(X0, X1, Y0, Y1, Z0, Z1, Nx, Ny, Coef, Vsq, AEven, AOdd);
    else
      stencilStep(X0, X1, Y0, Y1, Z0, Z1, Nx, Ny, Coef, Vsq, AOdd, AEven);
  }
}
