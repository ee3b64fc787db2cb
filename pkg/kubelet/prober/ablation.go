// probewheel:module-only — the ablation's arms (bench/impl.go): the product with one mechanism switched off; never exported.

package prober

import "fmt"

// AblationArms are the mechanisms the ablation switches off, one per arm.
var AblationArms = []string{"no-inline", "no-ticker-mode", "go-per-run", "one-lane", "no-detach", "random-sleep", "exact-sparse"}

// NewAblationManager turns a Manager that NewManager built with the
// ProbeTimerWheel gate on into the product with one mechanism switched off.
func NewAblationManager(m Manager, arm string) Manager {
	pm := m.(*manager)
	if pm.scheduler == nil {
		panic("prober: NewAblationManager needs a manager built with the ProbeTimerWheel gate on")
	}
	var mech mechanisms
	switch arm {
	case "no-inline":
		mech.noInline = true
	case "no-ticker-mode":
		mech.noTickerMode = true
	case "go-per-run":
		mech.goPerRun = true
	case "one-lane":
		mech.oneLane = true
	case "no-detach":
		mech.noDetach = true
	case "random-sleep":
		mech.randomSleep = true
	case "exact-sparse":
		mech.exactSparse = true
	default:
		panic(fmt.Sprintf("prober: no ablation arm %q", arm))
	}
	pm.scheduler = newScheduler(schedulerConfig{Mech: mech})
	return pm
}
