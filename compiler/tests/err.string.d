BEGIN { trace("unterminated); }
