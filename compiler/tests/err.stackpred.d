BEGIN /stack() != 0/ { exit(0); }
