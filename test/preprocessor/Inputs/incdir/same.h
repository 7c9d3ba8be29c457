uniform int same_from_include_dir = 1;
