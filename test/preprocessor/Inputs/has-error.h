uniform int before_error;
#error header says no
