package prober

func a() {}

func canInheritProbeState() bool { return true }
