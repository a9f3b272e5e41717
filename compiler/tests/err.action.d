BEGIN { jstack(); }
