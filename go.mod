module github.com/odtkit/odtkit

go 1.26
