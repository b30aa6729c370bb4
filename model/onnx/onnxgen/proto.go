package onnxgen

import (
	"encoding/binary"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field numbers and enum values of the ONNX protobuf schema, taken from the
// official onnx/onnx.proto (github.com/onnx/onnx, onnx/onnx.proto; proto2
// syntax, package onnx). Only the fields the generator writes are listed.
const (
	// ModelProto
	modelIRVersion     = 1 // optional int64 ir_version = 1
	modelProducerName  = 2 // optional string producer_name = 2
	modelProducerVer   = 3 // optional string producer_version = 3
	modelDocString     = 6 // optional string doc_string = 6
	modelGraph         = 7 // optional GraphProto graph = 7
	modelOpsetImport   = 8 // repeated OperatorSetIdProto opset_import = 8
	opsetIDDomain      = 1 // OperatorSetIdProto: optional string domain = 1
	opsetIDVersion     = 2 // OperatorSetIdProto: optional int64 version = 2
	graphNode          = 1 // GraphProto: repeated NodeProto node = 1
	graphName          = 2 // GraphProto: optional string name = 2
	graphInitializer   = 5 // GraphProto: repeated TensorProto initializer = 5
	graphInput         = 11
	graphOutput        = 12
	nodeInput          = 1 // NodeProto: repeated string input = 1
	nodeOutput         = 2 // NodeProto: repeated string output = 2
	nodeName           = 3 // NodeProto: optional string name = 3
	nodeOpType         = 4 // NodeProto: optional string op_type = 4
	nodeAttribute      = 5 // NodeProto: repeated AttributeProto attribute = 5
	attrName           = 1 // AttributeProto: optional string name = 1
	attrF              = 2 // AttributeProto: optional float f = 2
	attrI              = 3 // AttributeProto: optional int64 i = 3
	attrInts           = 8 // AttributeProto: repeated int64 ints = 8
	attrType           = 20
	tensorDims         = 1 // TensorProto: repeated int64 dims = 1
	tensorDataType     = 2 // TensorProto: optional int32 data_type = 2
	tensorName         = 8 // TensorProto: optional string name = 8
	tensorRawData      = 9 // TensorProto: optional bytes raw_data = 9 (little-endian)
	valueInfoName      = 1 // ValueInfoProto: optional string name = 1
	valueInfoType      = 2 // ValueInfoProto: optional TypeProto type = 2
	typeTensorType     = 1 // TypeProto: Tensor tensor_type = 1 (oneof value)
	typeTensorElemType = 1 // TypeProto.Tensor: optional int32 elem_type = 1
	typeTensorShape    = 2 // TypeProto.Tensor: optional TensorShapeProto shape = 2
	shapeDim           = 1 // TensorShapeProto: repeated Dimension dim = 1
	dimValue           = 1 // TensorShapeProto.Dimension: int64 dim_value = 1
	dimParam           = 2 // TensorShapeProto.Dimension: string dim_param = 2

	// AttributeProto.AttributeType
	attrTypeFloat = 1
	attrTypeInt   = 2
	attrTypeInts  = 7

	// TensorProto.DataType
	dataTypeFloat = 1
)

// IRVersion and Opset are the ONNX IR version and the default-domain operator
// set version the generated models declare.
const (
	IRVersion = 8
	Opset     = 13
)

func appendString(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendMessage(b []byte, num protowire.Number, msg []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, msg)
}

func appendInt(b []byte, num protowire.Number, v int64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(v))
}

// attr is one node attribute.
type attr struct {
	name string
	typ  int
	i    int64
	f    float32
	ints []int64
}

func intAttr(name string, v int64) attr     { return attr{name: name, typ: attrTypeInt, i: v} }
func floatAttr(name string, v float32) attr { return attr{name: name, typ: attrTypeFloat, f: v} }
func intsAttr(name string, v ...int64) attr { return attr{name: name, typ: attrTypeInts, ints: v} }
func (a attr) marshal() []byte {
	b := appendString(nil, attrName, a.name)
	switch a.typ {
	case attrTypeInt:
		b = appendInt(b, attrI, a.i)
	case attrTypeFloat:
		b = protowire.AppendTag(b, attrF, protowire.Fixed32Type)
		b = protowire.AppendFixed32(b, math.Float32bits(a.f))
	case attrTypeInts:
		// repeated int64 without [packed = true] in a proto2 file: one
		// tagged varint per element.
		for _, v := range a.ints {
			b = appendInt(b, attrInts, v)
		}
	default:
		panic("onnxgen: unknown attribute type")
	}
	return appendInt(b, attrType, int64(a.typ))
}

// node is one graph node.
type node struct {
	op, name   string
	in, out    []string
	attributes []attr
}

func (n node) marshal() []byte {
	var b []byte
	for _, s := range n.in {
		b = appendString(b, nodeInput, s)
	}
	for _, s := range n.out {
		b = appendString(b, nodeOutput, s)
	}
	b = appendString(b, nodeName, n.name)
	b = appendString(b, nodeOpType, n.op)
	for _, a := range n.attributes {
		b = appendMessage(b, nodeAttribute, a.marshal())
	}
	return b
}

// initializer is a constant float32 tensor.
type initializer struct {
	name string
	dims []int64
	data []float32
}

func (t initializer) marshal() []byte {
	n := int64(1)
	for _, d := range t.dims {
		n *= d
	}
	if n != int64(len(t.data)) {
		panic("onnxgen: initializer " + t.name + ": dims do not match data")
	}
	var b []byte
	for _, d := range t.dims {
		b = appendInt(b, tensorDims, d)
	}
	b = appendInt(b, tensorDataType, dataTypeFloat)
	b = appendString(b, tensorName, t.name)
	raw := make([]byte, 4*len(t.data))
	for i, v := range t.data {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	return appendMessage(b, tensorRawData, raw)
}

// dim is a tensor dimension: a fixed size when param is empty, else a
// symbolic (dynamic) dimension.
type dim struct {
	value int64
	param string
}

// valueInfo describes a float32 graph input or output.
type valueInfo struct {
	name  string
	shape []dim
}

func (v valueInfo) marshal() []byte {
	var shape []byte
	for _, d := range v.shape {
		var db []byte
		if d.param != "" {
			db = appendString(nil, dimParam, d.param)
		} else {
			db = appendInt(nil, dimValue, d.value)
		}
		shape = appendMessage(shape, shapeDim, db)
	}
	tensor := appendInt(nil, typeTensorElemType, dataTypeFloat)
	tensor = appendMessage(tensor, typeTensorShape, shape)
	typ := appendMessage(nil, typeTensorType, tensor)
	b := appendString(nil, valueInfoName, v.name)
	return appendMessage(b, valueInfoType, typ)
}

// graph is a whole model.
type graph struct {
	name         string
	doc          string
	nodes        []node
	initializers []initializer
	inputs       []valueInfo
	outputs      []valueInfo
}

// marshal encodes the ModelProto.
func (g graph) marshal() []byte {
	var gb []byte
	for _, n := range g.nodes {
		gb = appendMessage(gb, graphNode, n.marshal())
	}
	gb = appendString(gb, graphName, g.name)
	for _, t := range g.initializers {
		gb = appendMessage(gb, graphInitializer, t.marshal())
	}
	for _, v := range g.inputs {
		gb = appendMessage(gb, graphInput, v.marshal())
	}
	for _, v := range g.outputs {
		gb = appendMessage(gb, graphOutput, v.marshal())
	}

	b := appendInt(nil, modelIRVersion, IRVersion)
	b = appendString(b, modelProducerName, "vcr-onnxgen")
	b = appendString(b, modelProducerVer, "1")
	if g.doc != "" {
		b = appendString(b, modelDocString, g.doc)
	}
	b = appendMessage(b, modelGraph, gb)
	opset := appendString(nil, opsetIDDomain, "")
	opset = appendInt(opset, opsetIDVersion, Opset)
	return appendMessage(b, modelOpsetImport, opset)
}
