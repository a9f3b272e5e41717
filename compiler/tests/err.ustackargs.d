BEGIN { ustack(5, 0, 1); }
