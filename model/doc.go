// Package model is odtkit's common model layer: datasets and their readers,
// the binary view used by the DP and SAT backends, decision graphs (trees
// and diagrams), problems and results. It imports no other odtkit package;
// every backend and the selector build on it.
//
// Reading data: a CSV column of numbers is numeric, a column holding other
// text categorical. A missing value ("?" or an empty cell) is an error
// naming the file, line and column, unless the column is declared
// categorical (ReadOptions.Categorical), where it is one more level;
// empty and repeated column names are refused.
//
// Applying a model: a graph names the features it was learned on, and
// Graph.Bind applies it to another dataset by those names, whatever the
// order of its columns and whatever other columns it holds; categories
// and classes are matched by name too. ReadOptions.Columns, NoLabel and
// MinRows read only the columns a model tests, without a label, from as
// little as one row.
package model
