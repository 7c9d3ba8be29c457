uniform int same_from_includer_dir = 1;
