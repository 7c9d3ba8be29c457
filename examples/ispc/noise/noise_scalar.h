// The scalar reference of the noise example.
#pragma once
void noise_scalar(float X0, float Y0, float X1, float Y1, float Z, int Width, int Height,
                  int Octaves, float *Output);
