BEGIN { ustack(); }
