// A header found next to the file that includes it.
uniform int from_local_header = 1;
