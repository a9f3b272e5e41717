BEGIN { printf("%d\n", stack(5)); }
