package probe
