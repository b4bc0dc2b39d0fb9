package host

// How a host stops, and stops what it started. The engine stops a plugin by sending SIGINT to the plugin's process
// group, and kills it only 5 s later. A Go program started with SIGINT ignored (a shell's background job, some CI
// step runners) keeps ignoring it unless it asks for the signal, so without this every host the engine stopped
// cost 5 s, several times per Pulumi command. Asking for SIGINT makes the host stop promptly however it was
// started; and since a caught signal reverts to its default on exec, the programs it starts no longer inherit the
// ignore either.

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// childGrace is how long a stopping host gives its children to exit after SIGINT before killing them: well
// under the engine's own 5 s, so that the host, not the engine, is the one that ends them.
const childGrace = 2 * time.Second

// errStopping refuses to start a process once the host is stopping.
var errStopping = errors.New("the language host is stopping")

// childSet is the processes a host is running (programs, policy packs, builds), each with a channel closed when
// it has been waited for.
type childSet struct {
	mu       sync.Mutex
	stopping bool
	running  map[*os.Process]chan struct{}
}

var children = &childSet{running: map[*os.Process]chan struct{}{}}

// RunChild starts cmd and waits for it, as exec.Cmd.Run does, as one of the processes the host stops (SIGINT, then
// a kill after childGrace) when the engine stops the host.
func RunChild(cmd *exec.Cmd) error {
	done, err := children.start(cmd)
	if err != nil {
		return err
	}
	defer children.finished(cmd.Process, done)
	return cmd.Wait()
}

func (s *childSet) start(cmd *exec.Cmd) (chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		return nil, errStopping
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan struct{})
	s.running[cmd.Process] = done
	return done, nil
}

func (s *childSet) finished(process *os.Process, done chan struct{}) {
	s.mu.Lock()
	delete(s.running, process)
	s.mu.Unlock()
	close(done)
}

// stop refuses new children, interrupts the running ones, and kills those still running after grace.
func (s *childSet) stop(grace time.Duration) {
	s.mu.Lock()
	s.stopping = true
	running := make(map[*os.Process]chan struct{}, len(s.running))
	for process, done := range s.running {
		running[process] = done
	}
	s.mu.Unlock()

	for process := range running {
		_ = process.Signal(syscall.SIGINT) // already gone is fine
	}
	deadline, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	for process, done := range running {
		select {
		case <-done:
		case <-deadline.Done():
			_ = process.Kill()
		}
	}
}

// stopOnSignals makes SIGINT and SIGTERM stop the host's children and then the host, even when the host was
// started with them ignored.
func stopOnSignals() {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-signals
		children.stop(childGrace)
		os.Exit(0)
	}()
}
