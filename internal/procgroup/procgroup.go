// Package procgroup starts external tools (yosys, iverilog, vvp, verilator)
// in a process group of their own and ends that group with hxbar: a child
// in hxbar's group would outlive a SIGPIPE or a crash of hxbar (one yosys
// held 3.4 GB after 'hxbar synth | head -1'), and a grandchild (vvp under
// make, verilator's compiler) would outlive a kill of the child alone.
package procgroup

import (
	"context"
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// Command is exec.CommandContext with the child in a new process group;
// cancelling ctx kills the whole group, and Wait returns at most a second
// after that even when a grandchild still holds the output pipes.
func Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return Kill(cmd) }
	cmd.WaitDelay = time.Second
	return cmd
}

// Kill sends SIGKILL to the command's process group (the group of a
// started command: its id is the child's pid). A group already gone is
// not an error.
func Kill(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// Run runs cmd (made by Command) and then kills what is left of its group:
// a grandchild the tool left behind on its normal exit or on an error.
func Run(cmd *exec.Cmd) error {
	err := cmd.Run()
	_ = Kill(cmd)
	return err
}
