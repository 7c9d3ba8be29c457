uniform int h1;
uniform int h2;
uniform int h3;
