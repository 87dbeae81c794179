package sat

// varHeap is a binary max-heap of variables by activity.
type varHeap struct {
	act  *[]float64
	heap []int32
	pos  []int32 // index in heap, -1 when absent
}

func (h *varHeap) empty() bool { return len(h.heap) == 0 }

func (h *varHeap) insert(v int32) {
	for int(v) >= len(h.pos) {
		h.pos = append(h.pos, -1)
	}
	if h.pos[v] >= 0 {
		return
	}
	h.pos[v] = int32(len(h.heap))
	h.heap = append(h.heap, v)
	h.up(int(h.pos[v]))
}

func (h *varHeap) update(v int32) {
	if int(v) < len(h.pos) && h.pos[v] >= 0 {
		h.up(int(h.pos[v]))
	}
}

func (h *varHeap) pop() int32 {
	v := h.heap[0]
	last := h.heap[len(h.heap)-1]
	h.heap = h.heap[:len(h.heap)-1]
	h.pos[v] = -1
	if len(h.heap) > 0 {
		h.heap[0] = last
		h.pos[last] = 0
		h.down(0)
	}
	return v
}

func (h *varHeap) up(i int) {
	heap, pos, act := h.heap, h.pos, *h.act
	v := heap[i]
	av := act[v]
	for i > 0 {
		p := (i - 1) / 2
		u := heap[p]
		if av <= act[u] {
			break
		}
		heap[i] = u
		pos[u] = int32(i)
		i = p
	}
	heap[i] = v
	pos[v] = int32(i)
}

func (h *varHeap) down(i int) {
	heap, pos, act := h.heap, h.pos, *h.act
	v := heap[i]
	av := act[v]
	n := len(heap)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		u, au := heap[c], act[heap[c]]
		if c+1 < n {
			if w := heap[c+1]; act[w] > au {
				c, u, au = c+1, w, act[w]
			}
		}
		if au <= av {
			break
		}
		heap[i] = u
		pos[u] = int32(i)
		i = c
	}
	heap[i] = v
	pos[v] = int32(i)
}
