// Tests of how a host stops: started with SIGINT ignored, as a shell's background job or a CI step runner starts
// it, it must still stop at once on the SIGINT the engine sends (the engine kills it only 5 s later), and stop the
// program it runs too. The test binary runs itself as the host (TestMain below). Under the real engine:
// test/e2e/engine-signals.e2e.test.ts.
package host

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// helperEnv makes the test binary serve as a host; its value is the program the host runs alongside ("" for none),
// started through sh so that the test can choose its signal dispositions.
const helperEnv = "HOST_TEST_SERVE_WITH_CHILD"

func TestMain(m *testing.M) {
	if child, ok := os.LookupEnv(helperEnv); ok {
		serveForTest(child)
	}
	os.Exit(m.Run())
}

// serveForTest is a host as the hosts' mains are, running `sh -c child` as a program from the moment it serves,
// as a host runs programs. It reports on stderr whether it was started with SIGINT ignored, then its program's pid.
func serveForTest(child string) {
	fmt.Fprintf(os.Stderr, "started ignoring SIGINT: %t\n", signal.Ignored(os.Interrupt))
	Serve("test-host", func(flags Flags) pulumirpc.LanguageRuntimeServer {
		if child != "" {
			go func() {
				_ = RunChild(exec.Command("sh", "-c", child))
			}()
			fmt.Fprintf(os.Stderr, "child %d\n", runningChild().Pid)
		}
		return NewBase("test-host", "v0", "nothing", flags)
	})
}

// runningChild waits for the host's one child to have started.
func runningChild() *os.Process {
	for {
		children.mu.Lock()
		for process := range children.running {
			children.mu.Unlock()
			return process
		}
		children.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
}

// startIgnoringInterrupt starts the test binary as a host, with SIGINT ignored from the start (bash's `trap "" INT`
// before exec), and returns it with the pid of its child program (0 if none).
func startIgnoringInterrupt(t *testing.T, child string) (*exec.Cmd, int) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", `trap "" INT; exec "$0" 127.0.0.1:1`, self)
	cmd.Env = append(os.Environ(), helperEnv+"="+child)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	reports := bufio.NewReader(stderr)
	if line, _ := reports.ReadString('\n'); line != "started ignoring SIGINT: true\n" {
		t.Fatalf("the test host should have been started with SIGINT ignored: %q", line)
	}
	childPid := 0
	if child != "" {
		line, err := reports.ReadString('\n')
		if err != nil {
			t.Fatalf("the host did not report its child: %v", err)
		}
		if childPid, err = strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "child "))); err != nil {
			t.Fatalf("unexpected line %q", line)
		}
		t.Cleanup(func() { _ = syscall.Kill(childPid, syscall.SIGKILL) })
	}
	if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil { // the port: serving
		t.Fatalf("the host did not print its port: %v", err)
	}
	return cmd, childPid
}

// ignores reads whether a process ignores a signal (SigIgn in /proc/<pid>/status).
func ignores(t *testing.T, pid int, sig syscall.Signal) bool {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if hex, ok := strings.CutPrefix(line, "SigIgn:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			return mask&(1<<(uint(sig)-1)) != 0
		}
	}
	t.Fatalf("no SigIgn line in /proc/%d/status", pid)
	return false
}

// exitsWithin is whether cmd exits within d.
func exitsWithin(cmd *exec.Cmd, d time.Duration) bool {
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	select {
	case <-exited:
		return true
	case <-time.After(d):
		return false
	}
}

func alive(pid int) bool {
	// A zombie (exited, not yet reaped by its new parent) counts as gone.
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	return err == nil && !strings.Contains(string(status), "State:\tZ")
}

// The engine gives a plugin 5 s after SIGINT; the host must be gone well before.
const prompt = 1500 * time.Millisecond

func TestAHostStartedWithSIGINTIgnoredStopsOnSIGINT(t *testing.T) {
	host, _ := startIgnoringInterrupt(t, "")

	if err := host.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if !exitsWithin(host, prompt) {
		t.Fatalf("the host ignored SIGINT: still running %v after it", prompt)
	}
}

func TestAStoppedHostStopsItsProgramWhichDoesNotInheritTheIgnore(t *testing.T) {
	host, program := startIgnoringInterrupt(t, "exec sleep 60")
	if ignores(t, program, syscall.SIGINT) {
		t.Fatal("the program inherited the ignored SIGINT: the engine's SIGINT would not stop it")
	}

	if err := host.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if !exitsWithin(host, prompt) {
		t.Fatalf("the host did not stop within %v of SIGINT", prompt)
	}
	if alive(program) {
		t.Fatal("the host exited and left its program running")
	}
}

func TestAProgramThatIgnoresSIGINTIsKilledAfterTheGrace(t *testing.T) {
	host, program := startIgnoringInterrupt(t, `trap "" INT; exec sleep 60`)

	if err := host.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if !exitsWithin(host, childGrace+prompt) {
		t.Fatalf("the host did not stop within %v of SIGINT", childGrace+prompt)
	}
	if alive(program) {
		t.Fatal("the host exited and left its program running")
	}
}
