package prober
