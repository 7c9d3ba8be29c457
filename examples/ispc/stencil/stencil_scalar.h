// The scalar reference of the stencil example.
#pragma once
void stencil_scalar(int T0, int T1, int X0, int X1, int Y0, int Y1, int Z0, int Z1, int Nx, int Ny,
                    int Nz, const float Coef[4], const float *Vsq, float *AEven, float *AOdd);
