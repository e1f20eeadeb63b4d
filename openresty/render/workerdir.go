package render

// Workers is the layout of the worker directory, where the files the workers open while
// they serve live: the prefix's own, or the one the instance chose (WorkerDir).
func (o Options) Workers() Layout {
	if o.WorkerDir != "" {
		return Layout(o.WorkerDir)
	}
	return Layout(o.Prefix)
}
