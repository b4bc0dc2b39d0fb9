/**
 * The data sources the plugin serves through Invoke, by the schema's function token: the catalogue's
 * (provider/catalogue), the same functions a program calls, which build their client through withProgramClient;
 * the plugin points that at its own configured settings (provider/core/program-client setSettingsSource).
 */
import { DATA_SOURCES as CATALOGUE } from "../provider/catalogue";
import type { DataSourceDeclaration } from "../provider/core/declaration";

export const DATA_SOURCES: ReadonlyMap<string, DataSourceDeclaration["invoke"]> = new Map(
  CATALOGUE.map((dataSource) => [dataSource.token, dataSource.invoke]),
);
