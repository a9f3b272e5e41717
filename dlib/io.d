/*
 * xdt's D library: DTrace's I/O types (bufinfo_t, devinfo_t, fileinfo_t)
 * and their translators from Linux's block requests (io:::start and done
 * give a struct request * as all three arguments) and from open files
 * (struct file *, e.g. fbt::vfs_read:entry's args[0]).  docs/stable.md
 * maps every member to Linux.
 */

/* bufinfo_t's b_flags (illumos' values) */
inline int B_BUSY = 0x0001;
inline int B_DONE = 0x0002;
inline int B_ERROR = 0x0004;
inline int B_PAGEIO = 0x0010;
inline int B_PHYS = 0x0020;
inline int B_READ = 0x0040;
inline int B_WRITE = 0x0100;
inline int B_ASYNC = 0x0400;

typedef long long offset_t;

typedef struct bufinfo {
	int b_flags;		/* B_READ or B_WRITE, B_ASYNC unless REQ_SYNC */
	size_t b_bcount;	/* bytes the request moves */
	caddr_t b_addr;		/* no Linux equivalent (pages, not one buffer): 0 */
	uint64_t b_blkno;	/* first 512-byte sector on the device */
	uint64_t b_lblkno;	/* the same */
	size_t b_resid;		/* bytes not yet moved */
	size_t b_bufsize;	/* bytes the request moves */
	caddr_t b_iodone;	/* the request's end_io, or 0 */
	int b_error;		/* 0 (the status is done's, not the request's) */
	dev_t b_edev;		/* the device (partition) as Linux encodes dev_t */
} bufinfo_t;

typedef struct devinfo {
	int dev_major;		/* major number */
	int dev_minor;		/* minor number (of the partition) */
	int dev_instance;	/* the disk's index among its driver's disks */
	string dev_name;	/* the driver, e.g. "virtio_blk" */
	string dev_statname;	/* the disk as Linux names it, e.g. "vda" */
	string dev_pathname;	/* "/dev/" and that name */
} devinfo_t;

typedef struct fileinfo {
	string fi_name;		/* the file's name, or "<none>" */
	string fi_dirname;	/* its directory's path, or "<none>" */
	string fi_pathname;	/* its path (d_path()), or "<none>" */
	offset_t fi_offset;	/* the file offset: -1 for a request, 0 for no file */
	string fi_fs;		/* the filesystem type, or "<none>" */
	string fi_mount;	/* the filesystem's device, or "<none>" */
	int fi_oflags;		/* open(2) flags, or 0 */
} fileinfo_t;

translator bufinfo_t < struct request *R > {
	b_flags = (R->cmd_flags & 1 ? B_WRITE : B_READ) |
	    (R->cmd_flags & (1 << __REQ_SYNC) ? 0 : B_ASYNC);
	b_bcount = R->__data_len;
	b_addr = 0;
	b_blkno = R->__sector;
	b_lblkno = R->__sector;
	b_resid = R->__data_len;
	b_bufsize = R->__data_len;
	b_iodone = (caddr_t)R->end_io;
	b_error = 0;
	b_edev = R->part ? R->part->bd_dev :
	    (dev_t)(R->q->disk->major << 20 | R->q->disk->first_minor);
};

translator devinfo_t < struct request *R > {
	dev_major = R->q->disk->major;
	dev_minor = R->part ? R->part->bd_dev & 0xfffff : R->q->disk->first_minor;
	dev_instance = R->q->disk->minors ?
	    R->q->disk->first_minor / R->q->disk->minors : 0;
	dev_name = R->q->disk->part0->bd_device.parent &&
	    R->q->disk->part0->bd_device.parent->driver ?
	    stringof(R->q->disk->part0->bd_device.parent->driver->name) :
	    "<unknown>";
	dev_statname = stringof(R->q->disk->disk_name);
	dev_pathname = strjoin("/dev/", stringof(R->q->disk->disk_name));
};

/*
 * A block request belongs to no file: Linux keeps no file on it (the
 * pages' owner is reachable for the page cache, not for direct I/O).
 */
translator fileinfo_t < struct request *R > {
	fi_name = "<none>";
	fi_dirname = "<none>";
	fi_pathname = "<none>";
	fi_offset = -1;
	fi_fs = "<none>";
	fi_mount = "<none>";
	fi_oflags = 0;
};

/*
 * No file (a NULL F) is "<none>", offset 0 and no flags, as DTrace's own
 * translator has it: xlate<fileinfo_t *>(NULL) reads nothing.
 */
translator fileinfo_t < struct file *F > {
	fi_name = F == NULL ? "<none>" :
	    stringof(F->f_path.dentry->d_name.name);
	fi_dirname = F == NULL ? "<none>" : dirname(d_path(&F->f_path));
	fi_pathname = F == NULL ? "<none>" : d_path(&F->f_path);
	fi_offset = F == NULL ? 0 : F->f_pos;
	fi_fs = F == NULL ? "<none>" :
	    stringof(F->f_inode->i_sb->s_type->name);
	fi_mount = F == NULL ? "<none>" : stringof(F->f_inode->i_sb->s_id);
	fi_oflags = F == NULL ? 0 : F->f_flags;
};

/*
 * fds[fd]: the firing thread's open file fd, translated (illumos io.d's
 * inline associative array); an fd the process does not have is a NULL
 * file, "<none>".  The table is read with ordinary checked loads, so a
 * table the process swaps underneath us faults into ERROR, never the
 * kernel.
 */
inline fileinfo_t fds[int fd] = xlate <fileinfo_t> (
    fd >= 0 && fd < curthread->files->fdt->max_fds ?
    curthread->files->fdt->fd[fd] : NULL);
