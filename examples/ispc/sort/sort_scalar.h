// The scalar reference of the sort example.
#pragma once
#include <cstdint>
void sort_scalar(uint32_t *Keys, uint32_t *Tmp, int N);
