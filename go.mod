module github.com/odtkit/odtkit

go 1.26

require github.com/lanl/highs v1.0.0

require golang.org/x/exp v0.0.0-20221217163422-3c43f8badb15 // indirect
