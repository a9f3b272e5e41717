BEGIN { trace(stack()); }
