/* flags: -q -Z */
/* cmd: dd if=/proc/self/maps of=/dev/null */
/*
 * The lock subroutines on locks whose state is known: dd's read of its
 * own /proc/self/maps takes the seq_file's mutex (seq_read_iter) and its
 * mm's mmap_lock for reading (m_start: down_read_killable), and its exec
 * maps memory under the mmap_lock for writing (down_write_killable).
 * After a lock function returns its caller holds the lock; at an unlock's
 * entry it still does; after mutex_unlock() returns it no longer owns it.
 * min() over every firing: 1 only if it held at each one (max for what
 * must never hold); a row missing is a probe that never fired.
 * A lockdep kernel (make test-debug) has no mutex_lock(): the macro calls
 * mutex_lock_nested(lock, 0) there, so both are named, with -Z for the
 * one the kernel lacks (the rows still say mutex_lock).
 */
fbt::mutex_lock:entry,
fbt::mutex_lock_nested:entry
/pid == $target/
{
	self->m = arg0;
}

fbt::mutex_lock:return,
fbt::mutex_lock_nested:return
/self->m/
{
	@lo["mutex_lock:return mutex_owned"] = min(mutex_owned(self->m));
	@lo["mutex_lock:return mutex_owner == curthread"] =
	    min(mutex_owner(self->m) == curthread);
	@lo["mutex_lock:return mutex_type_adaptive"] = min(mutex_type_adaptive(self->m));
	@hi["mutex_lock:return mutex_type_spin"] = max(mutex_type_spin(self->m));
	self->m = 0;
}

fbt::mutex_unlock:entry
/pid == $target/
{
	@lo["mutex_unlock:entry mutex_owner == curthread"] =
	    min(mutex_owner(arg0) == curthread);
	self->u = arg0;
}

fbt::mutex_unlock:return
/self->u/
{
	@hi["mutex_unlock:return mutex_owner == curthread"] =
	    max(mutex_owner(self->u) == curthread);
	self->u = 0;
}

fbt::down_read_killable:entry
/pid == $target/
{
	self->r = arg0;
}

fbt::down_read_killable:return
/self->r && arg1 == 0/
{
	@lo["down_read_killable:return rw_read_held"] = min(rw_read_held(self->r));
	@hi["down_read_killable:return rw_write_held"] = max(rw_write_held(self->r));
}

fbt::down_read_killable:return
/self->r/
{
	self->r = 0;
}

fbt::up_read:entry
/pid == $target/
{
	@lo["up_read:entry rw_read_held"] = min(rw_read_held(arg0));
}

fbt::down_write_killable:entry
/pid == $target/
{
	self->w = arg0;
}

fbt::down_write_killable:return
/self->w && arg1 == 0/
{
	@lo["down_write_killable:return rw_write_held"] = min(rw_write_held(self->w));
	@lo["down_write_killable:return rw_iswriter"] = min(rw_iswriter(self->w));
	@hi["down_write_killable:return rw_read_held"] = max(rw_read_held(self->w));
}

fbt::down_write_killable:return
/self->w/
{
	self->w = 0;
}

fbt::up_write:entry
/pid == $target/
{
	@lo["up_write:entry rw_write_held"] = min(rw_write_held(arg0));
}

END
{
	printa("%-48s %@d\n", @lo);
	printa("%-48s %@d\n", @hi);
}
