BEGIN { stack(-1); }
