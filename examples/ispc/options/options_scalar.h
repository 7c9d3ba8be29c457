// The scalar reference of the options example.
#pragma once
void black_scholes_scalar(const float *S, const float *X, const float *T, const float *R,
                          const float *V, float *Result, int Count);
void binomial_scalar(const float *S, const float *X, const float *T, const float *R, const float *V,
                     float *Result, int Count);
