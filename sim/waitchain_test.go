package sim

import (
	"errors"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
)

// TestTimeoutNotBlamedOnFault: a watchdog shorter than a fault-free wait
// times out as the fault-free run does; the explanation then must not say
// the missing signal was lost (in the cycle of the TIMEOUT it is not sent
// yet, being sent, or on its way), since the fault changed nothing of it. A signal
// a dead channel swallowed is still reported lost (TestFaultKinds).
func TestTimeoutNotBlamedOnFault(t *testing.T) {
	same := 0
	for w := int64(30); w <= 70; w++ {
		sys := hw.Default()
		sys.Dims, sys.Ranks, sys.Op, sys.Watchdog, sys.Placement = []int{3, 3}, 0, hw.OpSum, w, nil
		if err := sys.Validate(); err != nil {
			t.Fatal(err)
		}
		_, clean, _, _, _ := settleRun(t, sys, false, false)
		sys.Faults = []string{"flip:n5.inject@15:97"}
		_, err, _, _, _ := settleRun(t, sys, false, false)
		var ce, fe *UnitError
		if !errors.As(clean, &ce) || !errors.As(err, &fe) {
			continue
		}
		a, b := ce.Errors[0], fe.Errors[0]
		if a.Code != barrierunit.ErrTimeout || a != b {
			continue
		}
		same++
		if strings.Contains(fe.Context, "lost") {
			t.Errorf("watchdog %d: %v\nblames a loss, but the fault-free run times out the same: %v", w, err, clean)
		}
		if !strings.Contains(fe.Context, "which is sending it") && !strings.Contains(fe.Context, "still on its way") &&
			!strings.Contains(fe.Context, "which has not sent it yet") {
			t.Errorf("watchdog %d: %q says nothing of the signal in flight", w, fe.Context)
		}
	}
	if same == 0 {
		t.Fatal("no watchdog times out as the fault-free run does")
	}
}
