/*
 * The handles the kernel holds (see handle.h): the passthrough's open
 * files, and the list of every backend's handles, so that one never
 * released (a connection aborted) is still dropped at unmount.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "handle.h"
#include "record.h"

static void fh_drop(struct gfs *g, struct fh_list *h);

int fh_new(struct op *op, int fd, bool may_write, struct fh **out)
{
	struct fh *fh = calloc(1, sizeof(*fh));

	if (!fh || !(fh->vpath = strdup(op->vpath))) {
		free(fh);
		return -ENOMEM;
	}
	fh->fd = fd;
	fh->zone = op->zone;
	fh->may_write = may_write;
	fh->pid = fuse_req_ctx(op->req)->pid;
	fh->uid = fuse_req_ctx(op->req)->uid;
	record_comm(fh->pid, fh->comm);
	gfs_handle_track(op->g, &fh->link, fh_drop);
	*out = fh;
	return 0;
}

void fh_revoke_writers(struct gfs *g, dev_t dev, ino_t ino)
{
	struct fh_list *h;
	struct stat st;

	pthread_mutex_lock(&g->lock);
	for (h = g->open_files.next; h != &g->open_files; h = h->next) {
		struct fh *fh = (struct fh *)h;

		if (h->drop != fh_drop || !fh_may_write(fh) ||
		    fstat(fh->fd, &st) < 0 || st.st_dev != dev ||
		    st.st_ino != ino)
			continue;
		__atomic_store_n(&fh->may_write, false, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&g->lock);
}

int gfs_handle_fd(struct gfs *g, dev_t dev, ino_t ino)
{
	struct fh_list *h;
	struct stat st;
	int fd = -1, pfd;
	char p[64];

	pthread_mutex_lock(&g->lock);
	for (h = g->open_files.next; h != &g->open_files && fd < 0;
	     h = h->next) {
		struct fh *fh = (struct fh *)h;

		if (h->drop == fh_drop && fstat(fh->fd, &st) == 0 &&
		    st.st_dev == dev && st.st_ino == ino)
			fd = fcntl(fh->fd, F_DUPFD_CLOEXEC, 0);
	}
	pthread_mutex_unlock(&g->lock);
	if (fd < 0)
		return -ESTALE;
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	pfd = open(p, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		pfd = -errno;
	close(fd);
	return pfd;
}

void fh_free(struct gfs *g, struct fh *fh)
{
	gfs_handle_untrack(g, &fh->link);
	close(fh->fd);
	free(fh->vpath);
	free(fh);
}

static void fh_drop(struct gfs *g, struct fh_list *h)
{
	fh_free(g, (struct fh *)h);
}

void gfs_handle_track(struct gfs *g, struct fh_list *h,
		      void (*drop)(struct gfs *g, struct fh_list *h))
{
	h->drop = drop;
	pthread_mutex_lock(&g->lock);
	h->next = g->open_files.next;
	h->prev = &g->open_files;
	g->open_files.next->prev = h;
	g->open_files.next = h;
	pthread_mutex_unlock(&g->lock);
}

void gfs_handle_untrack(struct gfs *g, struct fh_list *h)
{
	if (!h->next)
		return;
	pthread_mutex_lock(&g->lock);
	h->prev->next = h->next;
	h->next->prev = h->prev;
	h->next = h->prev = NULL;
	pthread_mutex_unlock(&g->lock);
}

void gfs_close_open_files(struct gfs *g)
{
	struct fh_list *h;

	for (;;) {
		pthread_mutex_lock(&g->lock);
		h = g->open_files.next;
		pthread_mutex_unlock(&g->lock);
		if (!h || h == &g->open_files)
			return;
		h->drop(g, h);
	}
}
