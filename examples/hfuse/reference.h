// Scalar C++ references of the HFuse example kernels (examples/hfuse/*.spmd),
// the same arithmetic in the same order per element; used by cpu_check.cpp.
#ifndef HFUSE_REFERENCE_H
#define HFUSE_REFERENCE_H

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ref {

// Mean and biased variance per channel, accumulated in double.
inline void batchnormStats(int N, int C, int HW, const float *In, std::vector<double> &Mean,
                           std::vector<double> &Var) {
  Mean.assign(C, 0);
  Var.assign(C, 0);
  for (int Ch = 0; Ch < C; ++Ch) {
    double Sum = 0, Squares = 0;
    for (int Img = 0; Img < N; ++Img)
      for (int I = 0; I < HW; ++I) {
        double X = In[(size_t)(Img * C + Ch) * HW + I];
        Sum += X;
        Squares += X * X;
      }
    double Count = double(N) * HW;
    Mean[Ch] = Sum / Count;
    Var[Ch] = Squares / Count - Mean[Ch] * Mean[Ch];
  }
}

inline void histogram1d(int N, const float *In, int Bins, float Lo, float Hi, int32_t *Hist) {
  float Scale = (float)Bins / (Hi - Lo);
  for (int I = 0; I < N; ++I) {
    float X = In[I];
    if (!(X >= Lo && X <= Hi))
      continue;
    int B = (int)((X - Lo) * Scale);
    Hist[std::min(B, Bins - 1)] += 1;
  }
}

inline void maxpool2d(int Planes, int H, int W, const float *In, float *Out) {
  int OH = (H - 1) / 2 + 1, OW = (W - 1) / 2 + 1;
  for (int P = 0; P < Planes; ++P)
    for (int OY = 0; OY < OH; ++OY)
      for (int OX = 0; OX < OW; ++OX) {
        float Best = -3.4028235e38f;
        for (int KY = 0; KY < 3; ++KY)
          for (int KX = 0; KX < 3; ++KX) {
            int Y = OY * 2 - 1 + KY, X = OX * 2 - 1 + KX;
            if (Y >= 0 && Y < H && X >= 0 && X < W)
              Best = std::max(Best, In[(P * H + Y) * W + X]);
          }
        Out[(P * OH + OY) * OW + OX] = Best;
      }
}

inline void upsampleBilinear2x(int Planes, int H, int W, const float *In, float *Out) {
  int OH = 2 * H, OW = 2 * W;
  float RH = (float)H / (float)OH, RW = (float)W / (float)OW;
  for (int P = 0; P < Planes; ++P)
    for (int OY = 0; OY < OH; ++OY)
      for (int OX = 0; OX < OW; ++OX) {
        float HR = std::max(RH * ((float)OY + 0.5f) - 0.5f, 0.0f);
        int H0 = (int)HR;
        int HStep = H0 < H - 1 ? W : 0;
        float HL1 = HR - (float)H0, HL0 = 1.0f - HL1;
        float WR = std::max(RW * ((float)OX + 0.5f) - 0.5f, 0.0f);
        int W0 = (int)WR;
        int WStep = W0 < W - 1 ? 1 : 0;
        float WL1 = WR - (float)W0, WL0 = 1.0f - WL1;
        int At = (P * H + H0) * W + W0;
        float Top = WL0 * In[At] + WL1 * In[At + WStep];
        float Bottom = WL0 * In[At + HStep] + WL1 * In[At + HStep + WStep];
        Out[(P * OH + OY) * OW + OX] = HL0 * Top + HL1 * Bottom;
      }
}

inline void im2col3x3(int Channels, int H, int W, const float *In, float *Cols) {
  int Pixels = H * W;
  for (int C = 0; C < Channels; ++C)
    for (int KY = 0; KY < 3; ++KY)
      for (int KX = 0; KX < 3; ++KX)
        for (int Y = 0; Y < H; ++Y)
          for (int X = 0; X < W; ++X) {
            int IY = Y - 1 + KY, IX = X - 1 + KX;
            float V = (IY >= 0 && IY < H && IX >= 0 && IX < W) ? In[(C * H + IY) * W + IX] : 0.0f;
            Cols[((C * 3 + KY) * 3 + KX) * Pixels + Y * W + X] = V;
          }
}

inline uint32_t fnv1(uint32_t A, uint32_t B) { return (A * 0x01000193u) ^ B; }

inline void memhash(int Items, uint32_t Seed, int Rows, const uint32_t *Table, int Rounds,
                    uint32_t *Out) {
  uint32_t Mask = (uint32_t)Rows - 1u;
  for (int I = 0; I < Items; ++I) {
    uint32_t M[4];
    M[0] = fnv1(Seed, (uint32_t)I);
    M[1] = fnv1(M[0], 0x9e3779b9u);
    M[2] = fnv1(M[1], 0x7f4a7c15u);
    M[3] = fnv1(M[2], 0x94d049bbu);
    for (int R = 0; R < Rounds; ++R) {
      uint32_t Row = fnv1((uint32_t)R ^ M[0], M[R & 3]) & Mask;
      for (int W = 0; W < 4; ++W)
        M[W] = fnv1(M[W], Table[Row * 4 + W]);
    }
    Out[I] = fnv1(fnv1(fnv1(M[0], M[1]), M[2]), M[3]);
  }
}

inline uint32_t rotr(uint32_t X, int N) { return (X >> N) | (X << (32 - N)); }

inline void g(uint32_t &A, uint32_t &B, uint32_t &C, uint32_t &D, uint32_t X, uint32_t Y) {
  A = A + B + X;
  D = rotr(D ^ A, 16);
  C = C + D;
  B = rotr(B ^ C, 12);
  A = A + B + Y;
  D = rotr(D ^ A, 8);
  C = C + D;
  B = rotr(B ^ C, 7);
}

inline void computehash(int Items, uint32_t Key, int Rounds, uint32_t *Out) {
  for (int I = 0; I < Items; ++I) {
    uint32_t M = (uint32_t)I;
    uint32_t V0 = 0x6a09e667u ^ Key, V1 = 0xbb67ae85u, V2 = 0x3c6ef372u, V3 = 0xa54ff53au;
    uint32_t V4 = 0x510e527fu ^ M, V5 = 0x9b05688cu, V6 = 0x1f83d9abu, V7 = 0x5be0cd19u;
    for (int R = 0; R < Rounds; ++R) {
      uint32_t K = (uint32_t)R * 0x9e3779b9u;
      g(V0, V2, V4, V6, M, K);
      g(V1, V3, V5, V7, M ^ K, V0);
      g(V0, V3, V4, V7, K, M);
      g(V1, V2, V5, V6, V3, M + K);
    }
    Out[I] = V0 ^ V1 ^ V2 ^ V3 ^ V4 ^ V5 ^ V6 ^ V7;
  }
}

} // namespace ref

#endif
