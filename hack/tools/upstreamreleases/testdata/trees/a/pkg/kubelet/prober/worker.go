package prober

func a() {}
