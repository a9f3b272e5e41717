BEGIN { stack(); }
