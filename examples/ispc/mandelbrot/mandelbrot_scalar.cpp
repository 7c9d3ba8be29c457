// Mandelbrot set in plain scalar C++: the reference and baseline of mandelbrot.spmd.
#include "mandelbrot_scalar.h"

// spmdc does not contract a * b + c into an FMA; the iteration counts must match it
// exactly, so the scalar code rounds each operation the same way.
#pragma clang fp contract(off)

static inline int mandel(float CRe, float CIm, int MaxIterations) {
  float ZRe = CRe, ZIm = CIm;
  int I;
  for (I = 0; I < MaxIterations; ++I) {
    if (ZRe * ZRe + ZIm * ZIm > 4.0f)
      break;
    float NextRe = ZRe * ZRe - ZIm * ZIm;
    float NextIm = 2.0f * ZRe * ZIm;
    ZRe = CRe + NextRe;
    ZIm = CIm + NextIm;
  }
  return I;
}

void mandelbrot_scalar(float X0, float Y0, float X1, float Y1, int Width, int Height,
                       int MaxIterations, int *Output) {
  float Dx = (X1 - X0) / Width;
  float Dy = (Y1 - Y0) / Height;
  for (int Row = 0; Row < Height; ++Row)
    for (int Col = 0; Col < Width; ++Col) {
      float X = X0 + Col * Dx;
      float Y = Y0 + Row * Dy;
      Output[Row * Width + Col] = mandel(X, Y, MaxIterations);
    }
}
