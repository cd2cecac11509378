package optimize

// References are the hand-written schedules of the brief, in the order of
// its table: "before", 76cd188, a74b69e and "now".
var References = []Schedule{
	named("before", "3s, 5s, 8s, 13s, every 15s until 2m, every 30s until 15m"),
	named("76cd188", "2s, 3s, 3s, 4s, every 5s until 2m, every 15s until 15m"),
	named("a74b69e", "1s, every 2s until 2m, every 5s until 15m"),
	named("now", "every 1s until 30s, every 2s until 2m, every 5s until 5m, every 15s until 15m"),
}

func named(name, spec string) Schedule {
	s := MustParseSpec(spec)
	s.Name = name
	return s
}
