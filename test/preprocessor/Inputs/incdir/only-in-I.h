// A header found only through -I.
uniform int from_include_dir = 2;
