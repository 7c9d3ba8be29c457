#ifndef GUARDED_H
#define GUARDED_H
uniform int guarded_once;
#endif
