BEGIN { stack(5, 2); }
