BEGIN { @ = sum(stack()); }
