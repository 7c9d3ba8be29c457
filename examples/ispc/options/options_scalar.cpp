// Option pricing in plain scalar C++: the reference and baseline of options.spmd.
#include "options_scalar.h"

#include <algorithm>
#include <cmath>

static const int BinomialSteps = 64;

static inline float cnd(float X) {
  float L = std::fabs(X);
  float K = 1.0f / (1.0f + 0.2316419f * L);
  float K2 = K * K;
  float K3 = K2 * K;
  float K4 = K3 * K;
  float K5 = K4 * K;
  float W = 0.31938153f * K - 0.356563782f * K2 + 1.781477937f * K3 - 1.821255978f * K4 +
            1.330274429f * K5;
  W *= 0.39894228040f * std::exp(-L * L * 0.5f);
  if (X > 0.0f)
    W = 1.0f - W;
  return W;
}

void black_scholes_scalar(const float *S, const float *X, const float *T, const float *R,
                          const float *V, float *Result, int Count) {
  for (int I = 0; I < Count; ++I) {
    float SqrtT = std::sqrt(T[I]);
    float D1 = (std::log(S[I] / X[I]) + (R[I] + V[I] * V[I] * 0.5f) * T[I]) / (V[I] * SqrtT);
    float D2 = D1 - V[I] * SqrtT;
    Result[I] = S[I] * cnd(D1) - X[I] * std::exp(-R[I] * T[I]) * cnd(D2);
  }
}

void binomial_scalar(const float *S, const float *X, const float *T, const float *R, const float *V,
                     float *Result, int Count) {
  for (int I = 0; I < Count; ++I) {
    float Tree[BinomialSteps];
    float Dt = T[I] / BinomialSteps;
    float U = std::exp(V[I] * std::sqrt(Dt));
    float D = 1.0f / U;
    float Disc = std::exp(R[I] * Dt);
    float Pu = (Disc - D) / (U - D);
    for (int J = 0; J < BinomialSteps; ++J) {
      float UPow = std::pow(U, float(2 * J - BinomialSteps));
      Tree[J] = std::max(0.0f, X[I] - S[I] * UPow);
    }
    for (int J = BinomialSteps - 1; J >= 0; --J)
      for (int K = 0; K < J; ++K)
        Tree[K] = ((1.0f - Pu) * Tree[K] + Pu * Tree[K + 1]) / Disc;
    Result[I] = Tree[0];
  }
}
