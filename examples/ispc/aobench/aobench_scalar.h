// The scalar reference of the aobench example.
#pragma once
void ao_scalar(int W, int H, int NSubsamples, float *Image);
