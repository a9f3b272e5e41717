fbt::vfs_read:entry { stack(arg2); }
