package backend

// Documenter is implemented by backends that explain their formulation
// beyond Info's one-line description: Doc is Markdown (its headings at
// level 3 or below) that the backend reference page (docs/backends.md)
// prints in the backend's section, after its options.
type Documenter interface {
	Doc() string
}
