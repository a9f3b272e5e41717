/* flags: -F */
/* cmd: dd if=/dev/zero of=/dev/null bs=1 count=2 */
/* cpu: 0 */
/*
 * -F: DTrace's flow indentation over fbt entry and return.  dd's two reads
 * of /dev/zero are vfs_read calling read_zero; each entry indents what
 * follows by two, each return unindents.  A second clause of the same
 * entry probe, right after the first, prints "| func:name" at the depth
 * the first made instead of indenting again (DTrace's dt_flowindent).
 * dtrace runs on one CPU (and so does dd, its child): records of one CPU
 * come out in the order they fired.
 */
fbt::vfs_read:entry, fbt::vfs_read:return,
fbt::read_zero:entry, fbt::read_zero:return
/execname == "dd"/
{
}

fbt::read_zero:entry
/execname == "dd"/
{
}
