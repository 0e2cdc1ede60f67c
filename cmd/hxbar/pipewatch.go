package main

import (
	"context"
	"syscall"

	"golang.org/x/sys/unix"
)

// watchPipe calls gone when fd is a pipe whose reader has closed it, until
// ctx ends. synth and cosim write their report only at the end: without
// this, 'hxbar synth | head -1' with head gone would run Yosys to its end
// (minutes, gigabytes) for a report no one reads.
func watchPipe(ctx context.Context, fd int, gone func()) {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return
	}
	for ctx.Err() == nil {
		// No events asked: poll reports POLLERR (reader closed) regardless.
		p := []unix.PollFd{{Fd: int32(fd)}}
		n, err := unix.Poll(p, 200)
		if err != nil && err != syscall.EINTR {
			return
		}
		if n > 0 && p[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0 {
			gone()
			return
		}
	}
}
