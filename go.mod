module github.com/odtkit/odtkit

go 1.26

require github.com/go-air/gini v1.0.4
