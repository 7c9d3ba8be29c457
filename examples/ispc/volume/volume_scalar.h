// The scalar reference of the volume example.
#pragma once
void volume_scalar(const float *Density, int N, int Width, int Height, float Step, int LightSteps,
                   float *Image);
