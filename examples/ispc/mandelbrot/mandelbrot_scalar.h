// The scalar reference of the mandelbrot example.
#pragma once
void mandelbrot_scalar(float X0, float Y0, float X1, float Y1, int Width, int Height,
                       int MaxIterations, int *Output);
