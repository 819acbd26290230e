"""BFCL's own decoders of prompt-mode results, the reference the importer is checked against.

A transcription of ``default_decode_ast_prompting``, ``ast_parse`` and ``resolve_ast_by_type``
(``bfcl_eval/model_handler/utils.py``) and of the tree-sitter readers
``parse_java_function_call`` / ``parse_javascript_function_call``
(``bfcl_eval/model_handler/parser/``) in ShishirPatil/gorilla @ 6ea57973, on the current
tree-sitter API. Two departures: BFCL ``eval``s arithmetic and lambdas, which these files
never hold (the reference refuses them), and tuples become lists (JSON has no tuple).
"""

from __future__ import annotations

import ast
from typing import Any

import tree_sitter_java
import tree_sitter_javascript
from tree_sitter import Language, Node, Parser

_JAVA = Parser(Language(tree_sitter_java.language()))
_JAVASCRIPT = Parser(Language(tree_sitter_javascript.language()))


def bfcl_decode(result: str, language: str) -> list[dict[str, Any]]:
    """The calls BFCL reads in ``result``; raises when BFCL's decoder raises."""
    result = result.strip("`\n ")
    if not result.startswith("["):
        result = "[" + result
    if not result.endswith("]"):
        result = result + "]"
    if language == "java":
        return _java_calls(result[1:-1])
    if language == "javascript":
        return _javascript_calls(result[1:-1])
    parsed = ast.parse(result.strip().strip("'"), mode="eval")
    if isinstance(parsed.body, ast.Call):
        return [_call(parsed.body)]
    calls = []
    for element in parsed.body.elts:  # type: ignore[attr-defined]
        assert isinstance(element, ast.Call)
        calls.append(_call(element))
    return calls


def _call(node: ast.Call) -> dict[str, Any]:
    parts = []
    func: ast.expr = node.func
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    return {".".join(reversed(parts)): {k.arg: _value(k.value) for k in node.keywords}}


def _value(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant):
        return "..." if node.value is Ellipsis else node.value
    if isinstance(node, ast.UnaryOp):
        return -node.operand.value  # type: ignore[attr-defined]
    if isinstance(node, ast.List | ast.Tuple):
        return [_value(v) for v in node.elts]
    if isinstance(node, ast.Dict):
        return {_value(k): _value(v) for k, v in zip(node.keys, node.values, strict=True)}  # type: ignore[arg-type]
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        return _call(node) if node.keywords else ast.unparse(node)
    if isinstance(node, ast.Subscript):
        return ast.unparse(node.value) + "[" + ast.unparse(node.slice) + "]"
    raise ValueError(f"Unsupported AST type: {type(node)}")


def _text(source: bytes, node: Node) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8")


def _java_calls(code: str) -> list[dict[str, Any]]:  # long: BFCL's reader, transcribed
    source = code.encode("utf-8")
    root = _JAVA.parse(source).root_node
    if "ERROR" in str(root):
        raise SyntaxError("Error parsing java the source code.")

    def traverse_node(node: Node, nested: bool = False) -> str:
        if node.type in ("string_literal", "character_literal"):
            return _text(source, node) if nested else _text(source, node)[1:-1]
        if node.type in ("identifier", "class_literal", "type_identifier", "method_invocation"):
            return _text(source, node)
        if node.type == "array_creation_expression":
            type_text = traverse_node(node.child_by_field_name("type"), True)  # type: ignore[arg-type]
            value_text = traverse_node(node.child_by_field_name("value"), True)  # type: ignore[arg-type]
            return f"new {type_text}[]{value_text}"
        if node.type == "object_creation_expression":
            type_text = traverse_node(node.child_by_field_name("type"), True)  # type: ignore[arg-type]
            arguments = node.child_by_field_name("arguments")
            if arguments is None:
                return f"new {type_text}()"
            texts = [traverse_node(c, True) for c in arguments.children if c.type not in ",()"]
            return f"new {type_text}({', '.join(texts)})"
        if node.type == "set":
            items = [traverse_node(n, True) for n in node.children if n.type not in (",", "set")]
            return "{" + ", ".join(items) + "}"
        if node.child_count > 0:
            return "".join(traverse_node(child, True) for child in node.children)
        return _text(source, node)

    def arguments_of(node: Node) -> dict[Any, Any]:
        arguments: dict[Any, Any] = {}
        for child in node.children:
            if child.type == "assignment_expression":
                name = _text(source, child.children[0])
                key, value = name, traverse_node(child.children[2])
            elif child.type in ("identifier", "class_literal", "set"):
                key, value = None, traverse_node(child)
            else:
                continue
            if key in arguments:
                raise ValueError("Error: Multiple arguments with the same name are not supported.")
            arguments[key] = value
        return arguments

    def traverse(node: Node) -> list[dict[str, Any]] | None:
        if node.type == "method_invocation":
            name = _text(source, node.child_by_field_name("name"))  # type: ignore[arg-type]
            owner = node.child_by_field_name("object")
            if owner is not None:
                name = f"{_text(source, owner)}.{name}"
            arguments = node.child_by_field_name("arguments")
            if arguments is not None:
                return [{name: arguments_of(arguments)}]
            return None
        for child in node.children:
            found = traverse(child)
            if found:
                return found
        return None

    return traverse(root) or []


def _javascript_calls(code: str) -> list[dict[str, Any]]:
    source = code.encode("utf-8")
    root = _JAVASCRIPT.parse(source).root_node
    if "ERROR" in str(root):
        raise SyntaxError("Error js parsing the source code.")
    for child in root.children:
        if child.type != "expression_statement":
            continue
        for call in child.children:
            if call.type != "call_expression":
                continue
            arguments: dict[Any, Any] = {}
            for argument in call.children[1].children:
                if argument.type == "assignment_expression":
                    key = _text(source, argument.children[0])
                    value = _text(source, argument.children[2])
                    if value[:1] == value[-1:] and value[:1] in ("'", '"'):
                        value = value[1:-1]
                elif argument.type in ("identifier", "true"):
                    key, value = None, _text(source, argument)
                else:
                    continue
                if key in arguments:
                    raise ValueError(
                        "Error: Multiple arguments with the same name are not supported."
                    )
                arguments[key] = value
            return [{_text(source, call.children[0]): arguments}]
    return []
