#include <cstdio>
extern "C" void t(int *OUT, const int *IN);
int main() { int IN[64], OUT[16] = {0}; for (int i = 0; i < 64; i++) IN[i] = (i * 37) % 200 - 100; t(OUT, IN); for (int i = 0; i < 16; i++) printf("%d ", OUT[i]); printf("\n"); }
